-- UNION ALL of an int and a bigint column (type widening)
SELECT ii AS x FROM t UNION ALL SELECT k AS x FROM u
