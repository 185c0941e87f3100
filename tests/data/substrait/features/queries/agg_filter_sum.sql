-- SUM(...) FILTER (WHERE ...)
SELECT sum(ii) FILTER (WHERE b) AS yes_total, sum(ii) AS total FROM t
