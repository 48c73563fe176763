# The worker DevMachineTemplate gains labels in spec.template.metadata.
/^  name: quick-start-default-worker-machinetemplate$/,/^---$/ s/^  template:$/  template:\n    metadata:\n      labels:\n        disk: ssd/
