-- string literals: empty, quotes, unicode
SELECT '' AS a, 'it''s' AS b2, 'Ünïcödé ß' AS c, ' x ' AS d
