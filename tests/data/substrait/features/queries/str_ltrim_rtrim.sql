-- ltrim() and rtrim()
SELECT id, ltrim(s) AS l, rtrim(s) AS r FROM t
