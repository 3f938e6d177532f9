import sys
from verifier.cli.commands import main
sys.exit(main())
