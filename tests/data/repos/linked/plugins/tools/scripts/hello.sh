#!/bin/sh
echo "hello from tools"
