-- lpad() and rpad() to 3 characters
SELECT id, lpad(g, 3, '*') AS l, rpad(g, 3, '*') AS r FROM t
