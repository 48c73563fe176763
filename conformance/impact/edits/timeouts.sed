# Node drain and deletion timeouts of the control plane and md-0.
s/nodeDrainTimeoutSeconds: 120$/nodeDrainTimeoutSeconds: 300/
s/nodeDeletionTimeoutSeconds: 30$/nodeDeletionTimeoutSeconds: 60/
