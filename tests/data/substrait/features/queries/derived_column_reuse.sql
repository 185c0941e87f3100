-- columns computed in a derived table and reused
SELECT id, x + y AS z FROM (SELECT id, ii * 2 AS x, ti + 1 AS y FROM t) d WHERE x > 0
