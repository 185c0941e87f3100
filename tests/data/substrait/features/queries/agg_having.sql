-- HAVING on an aggregate not in the select list
SELECT g, sum(ii) AS total FROM t GROUP BY g HAVING count(*) >= 3
