-- POSITION(x IN s): 1-based, 0 when absent
SELECT id, position('a' IN s) AS p FROM t
