-- abs() of integers, decimals and doubles
SELECT id, abs(ii) AS a1, abs(d1) AS a2, abs(f8) AS a3 FROM t
