-- integers to double
SELECT id, cast(bi AS double) AS r FROM t
