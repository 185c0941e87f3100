-- round(double) to an integer value
SELECT id, round(f8) AS r FROM t
