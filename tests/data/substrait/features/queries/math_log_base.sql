-- log(base, x)
SELECT id, log(2, bi) AS l FROM t WHERE bi > 0
