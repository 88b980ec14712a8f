/* inventory.h - stock keeping of the example shop (a static library). */
#ifndef SHOP_INVENTORY_H
#define SHOP_INVENTORY_H

int inventory_check_stock(const char *item, int quantity);
int inventory_reserve(const char *item, int quantity);

#endif
