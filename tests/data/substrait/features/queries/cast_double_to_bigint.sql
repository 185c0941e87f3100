-- doubles to bigint (whole values, and one that truncates and rounds alike)
SELECT id, cast(f8 * 4 AS bigint) AS r FROM t
