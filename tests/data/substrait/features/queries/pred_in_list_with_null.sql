-- IN over a list with a NULL: NULL (not false) for non-members
SELECT id, k IN (10, NULL) AS m FROM t
