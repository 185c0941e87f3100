-- comparisons with the empty string
SELECT id, g = '' AS e1, g < 'b' AS lt FROM t
