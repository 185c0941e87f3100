-- unary minus of every numeric type
SELECT id, -ti AS a, -si AS b2, -ii AS c, -bi AS d, -d1 AS e1, -f8 AS f FROM t
