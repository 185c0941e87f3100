-- +, -, * on mixed integer widths
SELECT id, ti + si AS a, ii - bi AS b2, si * 2 AS c FROM t
