-- ordered: ORDER BY an expression not in the select list
SELECT id FROM t ORDER BY abs(ii - 6) ASC NULLS LAST, id
