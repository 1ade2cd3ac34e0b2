; Inno Setup 6 script for the Windows installer.  NOT built or tested by this project's CI or on
; Linux: run it on Windows (see packaging/windows/build_windows.ps1 for the exact commands).
;
; Input:  dist\occupancy-gui\  (PyInstaller one-folder bundle: occupancy-gui.exe, occupancy.exe, _internal\)
; Output: dist\occupancy-gui-<version>-setup.exe
;
;   iscc /DAppVersion=0.1.0 packaging\windows\occupancy-gui.iss

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "Occupancy GUI"
#define AppExe "occupancy-gui.exe"
#define Root "..\.."

[Setup]
AppId={{6C1F1B7E-4D0B-4C55-9B0E-0CCA1F5E7A10}
AppName={#AppName}
AppVersion={#AppVersion}
AppPublisher=occupancy_gui developers
DefaultDirName={autopf}\Occupancy GUI
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
; Per-user install without admin rights by default; the user may choose all users.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
; Windows 10 1809 or later (Qt 6.10's minimum).
MinVersion=10.0.17763
OutputDir={#Root}\dist
OutputBaseFilename=occupancy-gui-{#AppVersion}-setup
SetupIconFile={#Root}\build\app.ico
UninstallDisplayIcon={app}\{#AppExe}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ChangesEnvironment=yes
ChangesAssociations=yes

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "addtopath"; Description: "Add occupancy-gui and occupancy to PATH"; Flags: unchecked
Name: "assoc"; Description: "Open .occsession, .cubin and .fatbin files with {#AppName}"

[Files]
Source: "{#Root}\dist\occupancy-gui\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Registry]
; File associations (per user or machine, following the install mode).
Root: HKA; Subkey: "Software\Classes\.occsession\OpenWithProgids"; ValueType: string; ValueName: "OccupancyGui.Session"; ValueData: ""; Flags: uninsdeletevalue; Tasks: assoc
Root: HKA; Subkey: "Software\Classes\OccupancyGui.Session"; ValueType: string; ValueName: ""; ValueData: "CUDA occupancy session"; Flags: uninsdeletekey; Tasks: assoc
Root: HKA; Subkey: "Software\Classes\OccupancyGui.Session\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\{#AppExe},0"; Tasks: assoc
Root: HKA; Subkey: "Software\Classes\OccupancyGui.Session\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"" ""%1"""; Tasks: assoc
Root: HKA; Subkey: "Software\Classes\.cubin\OpenWithProgids"; ValueType: string; ValueName: "OccupancyGui.Binary"; ValueData: ""; Flags: uninsdeletevalue; Tasks: assoc
Root: HKA; Subkey: "Software\Classes\.fatbin\OpenWithProgids"; ValueType: string; ValueName: "OccupancyGui.Binary"; ValueData: ""; Flags: uninsdeletevalue; Tasks: assoc
Root: HKA; Subkey: "Software\Classes\OccupancyGui.Binary"; ValueType: string; ValueName: ""; ValueData: "CUDA binary"; Flags: uninsdeletekey; Tasks: assoc
Root: HKA; Subkey: "Software\Classes\OccupancyGui.Binary\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"" ""%1"""; Tasks: assoc
Root: HKA; Subkey: "Software\Classes\Applications\{#AppExe}\SupportedTypes"; ValueType: string; ValueName: ".log"; ValueData: ""; Flags: uninsdeletekey; Tasks: assoc
; PATH (user PATH in a per-user install, system PATH otherwise).
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; Tasks: addtopath; Check: not IsAdminInstallMode and NeedsAddPath(ExpandConstant('{app}'))
Root: HKLM; Subkey: "SYSTEM\CurrentControlSet\Control\Session Manager\Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; Tasks: addtopath; Check: IsAdminInstallMode and NeedsAddPath(ExpandConstant('{app}'))

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[Code]
function NeedsAddPath(Dir: string): Boolean;
var
  Paths: string;
  RootKey: Integer;
  SubKey: string;
begin
  if IsAdminInstallMode then begin
    RootKey := HKEY_LOCAL_MACHINE;
    SubKey := 'SYSTEM\CurrentControlSet\Control\Session Manager\Environment';
  end else begin
    RootKey := HKEY_CURRENT_USER;
    SubKey := 'Environment';
  end;
  if not RegQueryStringValue(RootKey, SubKey, 'Path', Paths) then begin
    Result := True;
    exit;
  end;
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Paths) + ';') = 0;
end;
