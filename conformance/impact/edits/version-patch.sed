# A patch upgrade: v1.34.1 -> v1.34.3.
s/version: v1\.34\.1$/version: v1.34.3/
