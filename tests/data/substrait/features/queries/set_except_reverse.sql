-- EXCEPT the other way round
SELECT k FROM u EXCEPT SELECT k FROM t
