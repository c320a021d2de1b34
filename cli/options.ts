import { Option } from 'commander';

export const configOption = () => new Option('-c, --config <file>', 'JSON or JSON5 config (a whole gateway config works as is)').env('LOOPGUARD_CONFIG');
