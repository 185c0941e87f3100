-- boolean literals
SELECT true AS a, false AS b2, NOT true AS c
