-- GROUPING() of each key tells a rolled-up NULL from a NULL key
SELECT g, b, grouping(g) AS gg, grouping(b) AS gb, count(*) AS n FROM t GROUP BY ROLLUP (g, b)
