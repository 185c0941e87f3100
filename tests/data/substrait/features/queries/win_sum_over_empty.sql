-- an aggregate over () (the whole table)
SELECT id, sum(bi) OVER () AS total, count(*) OVER () AS n FROM t
