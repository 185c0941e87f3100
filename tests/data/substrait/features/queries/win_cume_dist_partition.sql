-- cume_dist() within partitions
SELECT id, g, cume_dist() OVER (PARTITION BY g ORDER BY id) AS cd FROM t
