// The names of the consumer groups loopguard's readers make for themselves (a follower of the
// decision topic, a restore, `tail`, the console). Each begins with the topic it reads, so a
// tenant whose topics share a prefix has its readers' groups under that prefix too, and one ACL
// covers them all: Read on the groups prefixed `<topic>-` (see the README's ACLs).
import { randomUUID } from 'node:crypto';

export type ReaderRole = 'reader' | 'restore' | 'tail' | 'console';

export const readerGroupId = (topic: string, role: ReaderRole): string => `${topic}-${role}-${randomUUID()}`;
