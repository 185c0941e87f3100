-- ceil() and floor() of doubles and decimals
SELECT id, ceil(f8) AS c1, floor(f8) AS f1, ceil(d1) AS c2, floor(d1) AS f2 FROM t
