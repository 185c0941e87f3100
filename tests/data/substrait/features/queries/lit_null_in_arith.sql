-- NULL in arithmetic and comparisons
SELECT id, ii + NULL AS a, ii = NULL AS b2 FROM t WHERE id < 3
