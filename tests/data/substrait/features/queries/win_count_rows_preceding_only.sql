-- count over ROWS 2 PRECEDING..1 PRECEDING (empty frame on the first row)
SELECT id, count(ii) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) AS c FROM t
