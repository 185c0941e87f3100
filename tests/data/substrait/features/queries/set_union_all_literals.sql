-- UNION ALL of constant rows
SELECT 1 AS a, 'x' AS c UNION ALL SELECT 2, 'y' UNION ALL SELECT 1, 'x'
