-- inner join on an inequality
SELECT t.id, u.id AS uid FROM t JOIN u ON t.ii < u.v
