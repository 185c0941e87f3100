-- several windows with different partitions and orders in one select
SELECT id, row_number() OVER (ORDER BY id DESC) AS r1, rank() OVER (PARTITION BY b ORDER BY id) AS r2, sum(ii) OVER (PARTITION BY g) AS s1 FROM t
