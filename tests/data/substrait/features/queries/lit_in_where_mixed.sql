-- literals of several types in one filter
SELECT id FROM t WHERE g = 'a' AND ii > 0 AND d1 > 1.0 AND dt > DATE '2024-01-01' AND b = true
