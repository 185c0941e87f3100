-- CASE ... ELSE NULL inside an aggregate (the TPC-DS pivot shape)
SELECT g, sum(CASE WHEN b THEN ii ELSE NULL END) AS yes_total, count(CASE WHEN NOT b THEN 1 ELSE NULL END) AS no_count FROM t GROUP BY g
