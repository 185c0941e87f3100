-- LEFT JOIN then aggregate with count of the right side
SELECT t.id, count(u.id) AS n FROM t LEFT JOIN u ON t.k = u.k GROUP BY t.id
