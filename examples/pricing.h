/* pricing.h - prices of the example shop (a shared library). */
#ifndef SHOP_PRICING_H
#define SHOP_PRICING_H

int pricing_quote(const char *item, int quantity);

#endif
