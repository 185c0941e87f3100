-- min/max over a partition with no ORDER BY (the whole partition)
SELECT id, g, min(ii) OVER (PARTITION BY g) AS mn, max(ii) OVER (PARTITION BY g) AS mx FROM t
