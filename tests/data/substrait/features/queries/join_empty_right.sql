-- LEFT JOIN to an empty table
SELECT t.id, e.v FROM t LEFT JOIN e ON t.k = e.k
