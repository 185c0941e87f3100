-- global aggregates over no rows: one row, count 0, sum NULL
SELECT count(*) AS n, sum(v) AS sv, max(s) AS ms FROM e
