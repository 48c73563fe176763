# The podSecurityStandard variable (a patch writes it into a file of the KCP).
s/enforce: baseline$/enforce: restricted/
