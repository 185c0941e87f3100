-- EXCEPT an empty table removes duplicates only
SELECT g FROM t EXCEPT SELECT g FROM e
