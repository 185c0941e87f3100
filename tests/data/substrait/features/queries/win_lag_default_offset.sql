-- lag() with its default offset of 1 (NULL before the first row)
SELECT id, ii, lag(ii) OVER (ORDER BY id) AS p FROM t
