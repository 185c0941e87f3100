-- CASE inside CASE
SELECT id, CASE WHEN b THEN CASE WHEN ii > 5 THEN 'b-high' ELSE 'b-low' END ELSE 'not-b' END AS c FROM t
