-- three inputs chained: UNION ALL then UNION
SELECT k FROM t WHERE id < 4 UNION ALL SELECT k FROM u WHERE id < 4 UNION SELECT k FROM e
