import sys

from companion.appliance.cli import main

sys.exit(main())
