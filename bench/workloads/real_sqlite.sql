-- real_sqlite.sql - the SQLite workload of bench/real_bench.sh: a few
-- thousand rows inserted, indexed, joined, grouped and sorted in an
-- in-memory database.  Prints aggregates only: the output must be the same
-- traced or not.
CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INTEGER, amount REAL, note TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
INSERT INTO customer SELECT i, 'customer ' || i, 'city ' || (i % 37) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
INSERT INTO orders SELECT i, (i * 7919) % 5000 + 1, (i * 104729) % 10000 / 100.0,
	printf('order %d of %s', i, hex(i * 31)) FROM n;
CREATE INDEX orders_customer ON orders(customer);
CREATE INDEX customer_city ON customer(city);
SELECT count(*), round(sum(amount), 2) FROM orders;
SELECT c.city, count(*), round(avg(o.amount), 3), max(length(o.note))
	FROM orders o JOIN customer c ON c.id = o.customer
	GROUP BY c.city ORDER BY 3 DESC LIMIT 5;
SELECT name FROM customer WHERE id IN
	(SELECT customer FROM orders GROUP BY customer HAVING sum(amount) > 560)
	ORDER BY name LIMIT 3;
UPDATE orders SET amount = amount * 1.1 WHERE customer % 3 = 0;
DELETE FROM orders WHERE amount < 5;
SELECT count(*), round(sum(amount), 2) FROM orders;
SELECT substr(note, 1, 12), upper(note) FROM orders ORDER BY note DESC LIMIT 2;
