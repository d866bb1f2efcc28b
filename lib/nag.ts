import { Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * A resource reference as cdk-nag writes it in finding ids: `<LogicalId.Arn>` for an attribute,
 * `<AWS::Partition>` for a reference, literal text as it is (so an imported ARN reads
 * `arn:<AWS::Partition>:s3:::name`).
 */
export function nagRef(scope: IConstruct, value: string): string {
  const render = (v: unknown): string => {
    if (typeof v === 'string') return v;
    const o = v as Record<string, unknown>;
    if (o.Ref) return `<${String(o.Ref)}>`;
    if (o['Fn::GetAtt']) return `<${(o['Fn::GetAtt'] as string[]).join('.')}>`;
    if (o['Fn::Join']) {
      const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
      return parts.map(render).join(sep);
    }
    return JSON.stringify(v);
  };
  return render(Stack.of(scope).resolve(value));
}
