#!/bin/bash
# container entrypoint
echo "starting job $(date -u +%Y-%m-%dT%H:%M:%SZ)"
python train.py "$@"
status=$?
echo "job finished with status $status"
exit $status
