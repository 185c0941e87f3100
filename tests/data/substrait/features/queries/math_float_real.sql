-- arithmetic on a REAL (float) column
SELECT id, f4 * 2 AS a, f4 + 1 AS b2 FROM t
