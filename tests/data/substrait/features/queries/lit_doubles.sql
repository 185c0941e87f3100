-- double literals in exponent form
SELECT 1.5e3 AS a, -2.5e-3 AS b2, cast(1.0 AS double) / 3 AS c
