-- a UNION inside a derived table, then aggregated
SELECT count(*) AS n, count(k) AS nk FROM (SELECT k FROM t UNION SELECT k FROM u) x
