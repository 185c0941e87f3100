-- boolean to integer
SELECT id, cast(b AS integer) AS r FROM t
