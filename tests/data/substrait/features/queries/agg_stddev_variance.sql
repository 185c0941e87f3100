-- stddev_samp and var_samp
SELECT stddev_samp(f8) AS sd, var_samp(ii) AS vr FROM t
