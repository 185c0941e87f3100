-- SELECT DISTINCT of an expression
SELECT DISTINCT upper(g) AS ug FROM t
